"""Who reads a row policy outside the pipeline (issue 37, item 3).

The pipeline (pipeline/) applies the row policies to a run and qrels. The
modules below read one too, each for a stated reason; a new reader fails
this test until it is declared here (and in docs/architecture.md's seams).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import rankproof

PACKAGE = Path(rankproof.__file__).parent
ROW_POLICIES = {"ids", "chunk_map", "chunks", "subqueries", "missing_query", "extra_query", "duplicates", "grades",
                "negative_grades", "unjudged", "score_precision", "ties", "identical_ids"}

# A file that may read one (parsed only then: parsing the whole package takes seconds).
MAY_READ = re.compile(r"rotocol[\w()\[\]]*\.(" + "|".join(sorted(ROW_POLICIES)) + r")\b")

# module -> (the row policies it reads, why)
READERS = {
    # applies it elsewhere: Spark splits the queries and applies the query policies per partition
    "spark/evaluate.py": ({"ids", "subqueries"}, "executor"),
    "spark/partition.py": ({"missing_query"}, "executor"),
    "spark/queries.py": ({"extra_query", "missing_query"}, "executor"),
    # applies it to its own input through the pipeline's functions (rows.apply_score_precision)
    "frontdoors/scores/_input.py": ({"score_precision"}, "front door"),
    # chooses how to parse grades (integer or real) before any row exists
    "cli/inputs.py": ({"grades"}, "parser"),
    "cli/step.py": ({"grades"}, "parser"),
    "frontdoors/frame.py": ({"grades"}, "parser"),
    "measures/resolve.py": ({"grades"}, "parser"),
    "data/layering.py": ({"ids"}, "parser"),
    # reads it to describe, warn or refuse, never to change a row
    "evaluation.py": ({"ties"}, "warning"),
    "frontdoors/scores/_tied.py": ({"ties"}, "warning"),
    "frontdoors/rag/__init__.py": ({"chunk_map"}, "warning"),
    "results/matching.py": ({"chunk_map", "ids"}, "warning"),
    "results/coverage.py": ({"missing_query"}, "warning"),
    "explain/explanation.py": ({"chunk_map", "chunks", "missing_query", "negative_grades", "ties"}, "description"),
    "pages/curves.py": ({"ties"}, "description"),
    # decides how much to align: under unjudged=condense every row, else only the top shown
    "trec/values.py": ({"unjudged"}, "optimisation"),
    # a side measure applies the ties policy to its own weights (tied items share an attention),
    # on rows ranked by the pipeline's functions (cuts.top_rows, rows.apply_score_precision)
    "recsys/attention.py": ({"ties"}, "side measure"),
    # ranks a run kept for the side measures in its own buffers, only where the row order decides
    # nothing (no repeat under duplicates, no unjudged=error, float64 scores, identical_ids kept)
    "recsys/topk.py": ({"duplicates", "identical_ids", "score_precision", "unjudged"}, "guard"),
}


def policy_reads(source: str) -> set[str]:
    """The row policies read as ``<something protocol>.<policy>`` in `source`."""
    return {node.attr for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Attribute) and node.attr in ROW_POLICIES
            and "protocol" in ast.unparse(node.value).lower()}


def readers() -> dict[str, set[str]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name.startswith(("pipeline/", "protocol/")):
            continue
        text = path.read_text(encoding="utf-8")
        reads = policy_reads(text) if MAY_READ.search(text) else set()
        if reads:
            found[name] = reads
    return found


def test_the_check_sees_a_read():
    assert policy_reads("def f(protocol):\n    return protocol.duplicates is Duplicates.FIRST\n") == {"duplicates"}
    assert policy_reads("def f(measure):\n    return measure.spec.ties\n") == set()


def test_every_row_policy_read_outside_the_pipeline_is_declared():
    assert readers() == {name: policies for name, (policies, _) in READERS.items()}


def test_no_reader_outside_the_pipeline_and_spark_applies_a_query_or_duplicate_policy_to_rows():
    applied = {"duplicates", "identical_ids", "subqueries", "extra_query"}
    # a guard reads them only to leave the rows as they are (recsys/topk.rank_owned_run)
    outside = {name for name, (policies, why) in READERS.items()
               if policies & applied and why not in ("executor", "guard")}
    assert outside == set()
