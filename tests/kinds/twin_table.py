"""Every row of the kind table (tests/kinds/kind_table.json) against the PyTorch twin, in one
process: per row, tests/peer/test_torch_twin.py's run_config (`llm0 init`, random weights at a
scale that exercises every path, `llm0 check grads` vs the twin in float32 and float64: logits,
loss, every parameter's gradient, the losses of 5 AdamW steps; rows with sliding windows, sinks,
MLA, experts or linear layers also run the cached path and a BF16 copy against the twin).

Usage: /usr/bin/python3 tests/kinds/twin_table.py PATH/TO/llm0 RESULTS.json
Writes {row name: [failure messages]} (an empty list: the row passed) and prints each row's errors.
Exit 0 when the results were written (the C++ suite kinds/twin_parity.cpp judges them), 77 when
torch/numpy are missing (the suite then skips), 2 on bad usage.
"""
import json
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "peer"))
try:
    import test_torch_twin as twin  # exits 77 itself when torch/numpy are missing
except SystemExit as e:
    sys.exit(e.code)


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    llm0, results = os.path.abspath(sys.argv[1]), sys.argv[2]
    with open(os.path.join(HERE, "kind_table.json")) as f:
        table = json.load(f)
    twin.torch.set_num_threads(1)
    t0 = time.time()
    out = {}
    with tempfile.TemporaryDirectory(prefix="llm0_kinds_twin_") as work:
        for i, row in enumerate(table["rows"]):
            cfg = dict(table["base"])
            cfg.update(row["config"])
            if "twin_lr" in row:
                cfg["_lr"] = row["twin_lr"]
            try:
                out[row["name"]] = twin.run_config(llm0, row["name"], cfg, work, seed=300 + i, base={})
            except Exception as e:  # a crash of llm0 or the twin fails this row, not the others
                err = getattr(e, "stderr", None) or b""
                out[row["name"]] = [f"{type(e).__name__}: {e} {err.decode(errors='replace')[-400:]}"]
    with open(results, "w") as f:
        json.dump(out, f, indent=1)
    print(f"twin_table: {len(out)} rows in {time.time() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
