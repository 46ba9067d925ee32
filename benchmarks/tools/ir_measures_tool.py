import sys
from collections import defaultdict

import ir_measures
from common import write
from ir_measures import AP, RR, P, nDCG

NAMES = {str(nDCG @ 10): "ndcg@10", str(nDCG): "ndcg", str(AP): "ap", str(RR): "rr", str(P @ 10): "p@10"}
qrels_path, run_path, out_path = sys.argv[1:4]
qrels = ir_measures.read_trec_qrels(qrels_path)
run = ir_measures.read_trec_run(run_path)
values = defaultdict(dict)
for metric in ir_measures.iter_calc([nDCG @ 10, nDCG, AP, RR, P @ 10], qrels, run):
    values[NAMES[str(metric.measure)]][metric.query_id] = metric.value
write(out_path, values)
