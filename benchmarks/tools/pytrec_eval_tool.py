import sys

import pytrec_eval
from common import write

NAMES = {"ndcg_cut_10": "ndcg@10", "ndcg": "ndcg", "map": "ap", "recip_rank": "rr", "P_10": "p@10"}
qrels_path, run_path, out_path = sys.argv[1:4]
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(run_path) as f:
    run = pytrec_eval.parse_run(f)
evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10", "ndcg", "map", "recip_rank", "P.10"})
per_query = evaluator.evaluate(run)
write(out_path, {ours: {q: v[theirs] for q, v in per_query.items()} for theirs, ours in NAMES.items()})
