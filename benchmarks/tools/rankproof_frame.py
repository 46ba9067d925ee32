"""rankproof's side of frame_bench.py: the whole process a user waits for.

Usage: python rankproof_frame.py TRUTH.parquet PREDICTIONS.parquet OUT.parquet
"""

from __future__ import annotations

import sys

from rankproof import evaluate_frame

MEASURES = ["ndcg@10", "r@10", "ap@10"]


def main(truth_path: str, predictions_path: str, out_path: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    results = evaluate_frame(truth_path, predictions_path, MEASURES)
    table = pa.table({"user": results.queries, **{m: results.values(m) for m in MEASURES}})
    pq.write_table(table, out_path)


if __name__ == "__main__":
    main(*sys.argv[1:4])
