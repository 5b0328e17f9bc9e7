#!/usr/bin/python3
"""The folder order of src/ (shared/DESIGN.md "How new kinds plug in": arrows only point down),
checked on every `#include "folder/..."` of every file under src/.

A file in src/A/ may include src/B/... only when B sits on a LOWER level than A in LEVELS below;
folders on one level are peers and include neither each other nor anything above. A folder under
src/ that LEVELS does not name fails too (place a new folder before using it). A quoted include
with a relative path ("../x.h") fails, since it would bypass the rule. Files under src/ops/ may
not name ModelConfig (references and kernels take op dimensions).

Inside a folder the arrows point one way too: no two units (a unit: name.h with its name.cpp)
include each other, i.e. A's files include B's header while B's files include A's header. What
both need moves into a lower unit (or a small header of its own); KNOWN_MUTUAL lists the pairs
not yet untangled, and an entry whose pair no longer includes each other fails until removed.

Usage: tests/layout/check_folder_order.py [SRC_DIR]     (default: src/ of this repository)
       tests/layout/check_folder_order.py --self-test   (the checker on a made-up tree)
Exit 0 when every include points down, 1 otherwise (one line per offending include:
file:line: A -> B ...). ctest runs both forms (label layout). Python 3 standard library only.
"""
import os
import re
import sys
import tempfile

# The ONE place the folder order is written, bottom first. Derived from DESIGN.md's target
# (core < config < ops < cache < layers < model < infer < the applications) and from what each
# folder really needs:
LEVELS = [
    ["core"],    # tensor, params, arena, threads, simd, half, json_file, atomic_file, comm
    ["config"],  # ModelConfig, LayerConfig and their rules (mla, moe, gated_deltanet, fields)
    ["ops"],     # stateless math; ops/ref: double precision, op dimensions (never ModelConfig)
    ["cache"],   # per-layer inference state (KV rows, pages, ring, latent, recurrent state)
    ["layers"],  # attention, mla, gated_deltanet, mlp, moe, norm, block
    ["model"],   # weights, forward/backward, cached forwards, parameter tables, plan, init
    # Below here the engine knows no text and no ledger. The tokenizer needs only core; the
    # ledger (KV bytes, FLOPs, peaks) reads the config; both sit above the engine so they may
    # read its caches later (the CacheSpec of issue 25) and the engine never reads them.
    ["tokenizer", "ledger"],
    ["chat"],    # the model's chat template: a Jinja subset (reads text with tokenizer/utf8)
    ["io"],      # safetensors, checkpoints (load into a Model), llama2.c; GGUF in io/gguf/
    ["infer"],   # sampler, generator (loads checkpoints through io), infer_dtypes, streaming
    ["http"],    # the transport below the servers: one body-framing policy over cpp-httplib
    ["lesson", "serve", "train"],  # the applications: peers, none includes another
    ["explore"],  # the lesson pages: serves lessons over serve's connection server
]

# Upward edges allowed until a later part of issue 25 removes them: "A -> B": "what removes it".
# Keep this empty; each entry needs a comment naming the change that will delete it.
KNOWN_EXCEPTIONS = {}

# Units that still include each other (issue 47 untangled io/'s): "A <-> B" (sorted): what each
# takes from the other. Remove an entry when its pair is untangled; add none.
KNOWN_MUTUAL = {
    # none: issue 47 untangled the last six pairs (each by moving what both read into a lower
    # unit or a small header of its own).
}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
# ops knows no model: its kernels and references take op dimensions (ints, or the per-layer
# structs of config/: MlaConfig, MoeConfig, GatedDeltaNetConfig), never the whole ModelConfig.
NO_MODEL_CONFIG = "ops"
MODEL_CONFIG = re.compile(r"\bModelConfig\b")


def level_of():
    table = {}
    for i, folders in enumerate(LEVELS):
        for f in folders:
            table[f] = i
    return table


def unit_of(rel):
    """The unit of a file or header path relative to src: its path without the extension."""
    return os.path.splitext(rel)[0].replace(os.sep, "/")


def mutual_includes(edges, known):
    """The pairs of units of one folder that include each other, from edges {(unit, unit): (file,
    line, target)} (the first include of the second unit's header by a file of the first), less
    `known`; and each entry of `known` that is no longer such a pair."""
    problems, seen = [], set()
    for (a, b), (rel, n, target) in sorted(edges.items()):
        if a >= b or (b, a) not in edges or a.split("/")[0] != b.split("/")[0]:
            continue  # across folders the folder order reports the upward include
        pair = f"{a} <-> {b}"
        seen.add(pair)
        if pair in known:
            continue
        back_rel, back_n, back_target = edges[(b, a)]
        problems.append(f"{rel}:{n}: units {a} and {b} include each other (\"{target}\"; "
                        f"{back_rel}:{back_n} includes \"{back_target}\"): move what both need "
                        "into a lower unit")
    for pair in sorted(set(known) - seen):
        problems.append(f"{pair}: no longer include each other: remove the pair from "
                        "KNOWN_MUTUAL (tests/layout/check_folder_order.py)")
    return problems


def check(src, known_mutual=None):
    """Returns the violations under src as 'path:line: message' strings (paths relative to src).
    known_mutual: the unit pairs allowed to include each other (default KNOWN_MUTUAL)."""
    known_mutual = KNOWN_MUTUAL if known_mutual is None else known_mutual
    level = level_of()
    problems = []
    edges = {}  # (unit, included unit) -> where the first such include is
    for folder in sorted(os.listdir(src)):
        if os.path.isdir(os.path.join(src, folder)) and folder not in level:
            problems.append(f"{folder}/: folder not placed in the folder order "
                            "(tests/layout/check_folder_order.py LEVELS)")
    for root, dirs, files in os.walk(src):
        dirs.sort()
        rel_root = os.path.relpath(root, src)
        if rel_root == ".":
            continue
        here = rel_root.split(os.sep)[0]
        for name in sorted(files):
            if not name.endswith((".h", ".cpp", ".hpp", ".inc")):
                continue
            path = os.path.join(root, name)
            rel = os.path.relpath(path, src)
            with open(path, encoding="utf-8") as f:
                for n, line in enumerate(f, 1):
                    if here == NO_MODEL_CONFIG and MODEL_CONFIG.search(line.split("//")[0]):
                        problems.append(f"{rel}:{n}: ModelConfig in {here}/ (take op dimensions)")
                    m = INCLUDE.match(line)
                    if not m:
                        continue
                    target = m.group(1)
                    if target.startswith("."):
                        problems.append(f"{rel}:{n}: relative include \"{target}\" "
                                        "(write it as \"folder/file.h\")")
                        continue
                    beside = os.path.join(rel_root, target) if "/" not in target else target
                    if os.path.isfile(os.path.join(src, beside)):
                        key = (unit_of(rel), unit_of(beside))
                        if key[0] != key[1]:
                            edges.setdefault(key, (rel, n, target))
                    if "/" not in target:
                        continue  # a header beside this file or a library's (<...> not checked)
                    there = target.split("/")[0]
                    if there == here or there not in level or here not in level:
                        continue  # same folder; unknown folders are reported above
                    edge = f"{here} -> {there}"
                    if level[there] < level[here] or edge in KNOWN_EXCEPTIONS:
                        continue
                    why = ("peer folders on one level" if level[there] == level[here]
                           else f"{there} sits above {here}")
                    problems.append(f"{rel}:{n}: upward include {edge} (\"{target}\"): {why}")
    return problems + mutual_includes(edges, known_mutual)


def self_test():
    """The checker must report exactly the planted faults of a small tree."""
    files = {
        "core/tensor.h": '#include <vector>\n',
        "config/config.h": '#include "core/tensor.h"\n',
        "ops/ref/ref_mla.h": ('#include "config/config.h"\n#include "model/model.h"\n'
                              'void f(const ModelConfig& c);  // ModelConfig in a comment is fine\n'),
        "model/model.h": '#include "ops/ref/ref_mla.h"\n#include "model/plan.h"\n',
        "model/plan.h": '#include "../core/tensor.h"\n',
        "serve/engine.h": '#include "train/trainer.h"\n',
        "train/trainer.h": '#include "model/model.h"\n',
        "newfolder/x.h": '#include "core/tensor.h"\n',
        # units that include each other: one pair through a header beside the file, one pair
        # listed in `known` (allowed), and a `known` entry no longer true
        "http/body.h": '#include "framing.h"\n',
        "http/framing.h": '',
        "http/framing.cpp": '#include "http/framing.h"\n#include "http/body.h"\n',
        "serve/engine.cpp": '#include "serve/engine.h"\n#include "serve/queue.h"\n',
        "serve/queue.cpp": '#include "serve/engine.h"\n',
        "serve/queue.h": '',
        "train/loop.h": '#include "train/trainer.h"\n',
        "train/trainer.cpp": '#include "train/trainer.h"\n#include "train/loop.h"\n',
    }
    known = {"serve/engine <-> serve/queue": "planted", "core/a <-> core/b": "planted, stale"}
    want = [
        "newfolder/: folder not placed in the folder order (tests/layout/check_folder_order.py LEVELS)",
        "model/plan.h:1: relative include \"../core/tensor.h\" (write it as \"folder/file.h\")",
        "ops/ref/ref_mla.h:2: upward include ops -> model (\"model/model.h\"): model sits above ops",
        "ops/ref/ref_mla.h:3: ModelConfig in ops/ (take op dimensions)",
        "serve/engine.h:1: upward include serve -> train (\"train/trainer.h\"): peer folders on one level",
        "http/body.h:1: units http/body and http/framing include each other (\"framing.h\"; "
        "http/framing.cpp:2 includes \"http/body.h\"): move what both need into a lower unit",
        "train/loop.h:1: units train/loop and train/trainer include each other "
        "(\"train/trainer.h\"; train/trainer.cpp:2 includes \"train/loop.h\"): move what both need "
        "into a lower unit",
        "core/a <-> core/b: no longer include each other: remove the pair from KNOWN_MUTUAL "
        "(tests/layout/check_folder_order.py)",
    ]
    with tempfile.TemporaryDirectory() as d:
        for rel, text in files.items():
            os.makedirs(os.path.join(d, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(d, rel), "w", encoding="utf-8") as f:
                f.write(text)
        got = check(d, known)
    if got != want:
        print("self-test failed\n got:\n  " + "\n  ".join(got) + "\n want:\n  " + "\n  ".join(want))
        return 1
    print(f"self-test passed: {len(want)} planted faults reported")
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    here = os.path.dirname(os.path.abspath(__file__))
    src = argv[1] if len(argv) > 1 else os.path.join(here, "..", "..", "src")
    problems = check(src)
    for p in problems:
        print("src/" + p)
    if problems:
        print(f"{len(problems)} line(s) against the folder order "
              "(bottom first: " + " < ".join("|".join(lv) for lv in LEVELS) + ")")
        return 1
    but = f" but the {len(KNOWN_MUTUAL)} pairs of KNOWN_MUTUAL" if KNOWN_MUTUAL else ""
    print("folder order kept: every include under src/ points down, and no two units of a folder "
          f"include each other{but}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
