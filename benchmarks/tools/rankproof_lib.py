import sys

from common import MEASURES, write

from rankproof import Protocol, Qrels, Run, evaluate

qrels_path, run_path, out_path = sys.argv[1:4]
preset = sys.argv[4] if len(sys.argv) > 4 else "rankproof"
results = evaluate(Qrels.read_trec(qrels_path), Run.read_trec(run_path), MEASURES, Protocol.preset(preset))
write(out_path, {m: results.per_query(m) for m in MEASURES})
