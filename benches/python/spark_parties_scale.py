"""The multi-party Spark job (``gramlink.spark_parties.link_parties``) on N
vector batches, measured: its wall time and report, and whether its clusters
equal the single machine's (``gramlink.match_parties``), cluster for cluster.

    target/pyenv/bin/python benches/python/spark_parties_scale.py a.vec b.vec c.vec … \\
        --master local[2] --out clusters.parquet [--split-edges 0]

Prints one JSON line. Batches as benches/multi/parties.sh makes them (docs/PYTHON.md
has the numbers)."""

import argparse
import json
import shutil
import time


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("batches", nargs="+")
    p.add_argument("--master", default="local[2]")
    p.add_argument("--out", default="clusters-spark.parquet")
    p.add_argument("--shards", type=int, default=None)
    p.add_argument("--split-edges", type=int, default=None,
                   help="split the solve by component above this many kept edges (0: always)")
    a = p.parse_args()

    import pyarrow.parquet as pq

    import gramlink
    from gramlink import spark as gspark
    from gramlink import spark_parties

    shutil.rmtree(a.out, ignore_errors=True)
    spark = gspark.session(a.master, spark_driver_memory="4g", spark_ui_showConsoleProgress="false")
    spark.sparkContext.setLogLevel("ERROR")
    t = time.perf_counter()
    split = {} if a.split_edges is None else {"split_edges": a.split_edges}
    stats = spark_parties.link_parties(spark, a.batches, a.out, shards=a.shards, **split)
    wall = time.perf_counter() - t
    spark.stop()
    t = time.perf_counter()
    single = gramlink.match_parties([open(b, "rb").read() for b in a.batches])
    single_wall = time.perf_counter() - t
    table = pq.read_table(a.out)
    got = dict(zip(zip(table.column("party").to_pylist(), table.column("id").to_pylist()),
                   table.column("cluster").to_pylist()))
    want = dict(zip(zip(single["party"], single["id"]), single["cluster"]))
    print(json.dumps({"spark_wall_s": round(wall, 1), "single_wall_s": round(single_wall, 1),
                      "equal": got == want, **{k: v for k, v in stats.items() if k != "parties"}}))


if __name__ == "__main__":
    main()
