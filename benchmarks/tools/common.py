"""What every tool script shares: the measures and the output file format.

Each tool script is run as its own process by benchmarks/run.py:
``python tools/<tool>.py QRELS RUN OUT.json``. It loads both files, evaluates
the five measures below and writes ``{measure: {query: value}}`` to OUT.json,
so the whole process (load + evaluate + write) is what is timed.
"""

import json

MEASURES = ["ndcg@10", "ndcg", "ap", "rr", "p@10"]


def write(path: str, values: dict) -> None:
    with open(path, "w") as stream:
        json.dump(values, stream)
