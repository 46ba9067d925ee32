"""Reading the side files (items, training log, features) from Parquet does not import pandas.

pyarrow imports pandas on ``Array.to_numpy()`` when it is installed: about 0.3 s of CPU (more on a
loaded machine) in a command that never uses it. The readers take numbers from the Arrow buffers
(``io.arrow.numpy_of``) and text through Python lists; a subprocess shows what was imported. The
files' ids are integers: text ids still go through pandas when io.arrow.id_columns checks them.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pyarrow as pa
import pyarrow.parquet as pq

from paths import SRC

READ = """
import sys
from rankproof.recsys.side_io import read_features, read_items, read_train
items = read_items(sys.argv[1])
train = read_train(sys.argv[2])
features = read_features(sys.argv[3])
print(len(items), 'pandas' in sys.modules)
"""


def test_the_side_readers_leave_pandas_unimported(tmp_path):
    pq.write_table(pa.table({"item": [1, 2, 3, 5]}), tmp_path / "items.parquet")
    pq.write_table(pa.table({"user": [7, 7, 8], "item": [1, 2, 2]}), tmp_path / "train.parquet")
    # Integer ids, as a recommender's logs have them (text ids are checked by io.arrow.id_columns,
    # which still converts them through pandas).
    pq.write_table(pa.table({"item": [1, 2, 3], "category": ["a|b", "b", "a"]}), tmp_path / "features.parquet")
    environment = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", READ, *(str(tmp_path / f"{name}.parquet")
                                                          for name in ("items", "train", "features"))],
                          capture_output=True, text=True, env=environment, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["4", "False"]
