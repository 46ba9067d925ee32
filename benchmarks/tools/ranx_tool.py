import sys

from common import write
from ranx import Qrels, Run, evaluate

NAMES = {"ndcg@10": "ndcg@10", "ndcg": "ndcg", "map": "ap", "mrr": "rr", "precision@10": "p@10"}
qrels_path, run_path, out_path = sys.argv[1:4]
qrels = Qrels.from_file(qrels_path, kind="trec")
run = Run.from_file(run_path, kind="trec")
evaluate(qrels, run, list(NAMES), return_mean=True)  # fills run.scores per query
write(out_path, {ours: dict(run.scores[theirs]) for theirs, ours in NAMES.items()})
