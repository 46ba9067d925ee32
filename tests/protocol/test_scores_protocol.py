"""Protocol additions for score matrices: the log:BASE discount and the sklearn / lightgbm presets."""

from __future__ import annotations

import math

import pytest

from rankproof import Protocol
from rankproof.errors import ProtocolError
from rankproof.protocol import Discount, LogDiscount, Gain, Ties, ZeroIdeal

DEFAULT_TEXT = ("gain=linear discount=log2 ideal=judged unjudged=zero zero_ideal=zero missing_query=zero "
                "extra_query=ignore ties=expected duplicates=error negative_grades=error aggregation=macro rel=1 "
                "score_precision=float64 iprec_rounding=round")


def test_log_discount_text_round_trips():
    protocol = Protocol(discount="log:10")
    assert protocol.discount == LogDiscount(10.0)
    assert "discount=log:10 " in str(protocol)
    assert Protocol.from_text(str(protocol)) == protocol
    assert str(Protocol(discount=LogDiscount(math.e)).discount) == f"log:{math.e!r}"


def test_log_base_2_is_the_log2_discount():
    # One canonical text per protocol: log:2 is log2.
    assert Protocol(discount="log:2").discount is Discount.LOG2
    assert Protocol(discount=LogDiscount(2)) == Protocol()


@pytest.mark.parametrize("text, message", [
    ("log:1", "a log discount needs a finite base > 0 other than 1"),
    ("log:0", "a log discount needs a finite base > 0 other than 1"),
    ("log:-3", "a log discount needs a finite base > 0 other than 1"),
    ("log:inf", "a log discount needs a finite base > 0 other than 1"),
    ("log:ten", "cannot read log discount 'log:ten'; write it as log:10"),
    ("logg", "choose one of log2, reciprocal, log:BASE"),
])
def test_bad_log_discounts_are_refused(text, message):
    with pytest.raises(ProtocolError, match=message):
        Protocol(discount=text)


def test_default_protocol_text_is_unchanged():
    assert str(Protocol()) == DEFAULT_TEXT


def test_lightgbm_preset():
    p = Protocol.preset("lightgbm")
    assert (p.gain, p.ties, p.zero_ideal) == (Gain.EXP2, Ties.INPUT, ZeroIdeal.ONE)
    assert p.differences(Protocol()) == {"gain": ("exp2", "linear"), "zero_ideal": ("one", "zero"),
                                         "ties": ("input", "expected")}
