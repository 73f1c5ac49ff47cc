#!/usr/bin/env python3
"""Finds import loops among the engine's modules (or any crate's `src/`).

Usage: engine/scripts/module-loops.py [SRC_DIR]   (default: engine/src next to this script)

Builds two dependency graphs over the non-test code of the crate and prints every cycle
(strongly connected component with more than one member) of each; exit status 1 if there is one:

- the module graph: one node per file (`crate::search::tt` for `search/tt.rs`, `crate::search`
  for `search/mod.rs`). An edge A -> B for every `crate::`/`super::`/`self::` path in A (in `use`
  trees, `pub use` re-exports included, and inline paths) that names B or an item of B, and for
  every call in A of a method that only B defines in an inherent `impl` block (so that
  `impl Position { .. }` blocks spread over several files count too);
- the directory graph: the same edges between top-level modules (`crate::search::tt` and
  `crate::search` are both `search`).

Test code (`#[cfg(test)]` items) and comments are ignored; `mod x;` declarations are not edges.
"""

import os
import re
import sys
from collections import defaultdict

# Method names that std types also have: a call `.len()` says nothing about which module of ours
# it reaches, so such names never make an edge.
COMMON = set(
    """new default clone from into len is_empty iter into_iter next get get_mut contains push pop
    insert remove clear index with without first last any all count map filter find fmt eq cmp
    hash as_str to_string parse name kind from_str write read min max abs split join sort
    is_some is_none unwrap expect ok err and_then or_else take replace extend drain copied
    cloned rev zip chain sum product capacity reserve truncate resize swap""".split()
)


def module_of(src, path):
    rel = os.path.relpath(path, src)[: -len(".rs")].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    # String literals (keep the quotes so code shape stays), but not lifetimes or chars.
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def strip_test_items(text):
    """Removes every item annotated `#[cfg(test)]` (brace-matched)."""
    out = []
    i = 0
    while True:
        j = text.find("#[cfg(test)]", i)
        if j < 0:
            out.append(text[i:])
            return "".join(out)
        out.append(text[i:j])
        k = j + len("#[cfg(test)]")
        semi = text.find(";", k)
        brace = text.find("{", k)
        if brace < 0 or (0 <= semi < brace):
            i = semi + 1  # `#[cfg(test)] mod x;` or a use
            continue
        depth = 0
        k = brace
        while k < len(text):
            if text[k] == "{":
                depth += 1
            elif text[k] == "}":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1


def use_paths(tree):
    """Expands a use tree (`crate::{a::b, c::{d, e}}`) into paths."""
    tree = re.sub(r"\s+", "", tree)
    out = []

    def expand(prefix, t):
        if "{" not in t:
            out.append(prefix + t)
            return
        head, rest = t.split("{", 1)
        inner = rest[: rest.rfind("}")]
        parts, depth, cur = [], 0, ""
        for ch in inner:
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
                continue
            depth += ch == "{"
            depth -= ch == "}"
            cur += ch
        parts.append(cur)
        for p in parts:
            if p:
                expand(prefix + head, p)

    expand("", tree)
    return [re.sub(r"\bas\w+$", "", p) for p in out]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    src = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "src")
    files = {}
    for root, _, names in os.walk(src):
        for n in names:
            if n.endswith(".rs"):
                p = os.path.join(root, n)
                files[module_of(src, p)] = p
    if "bin" in {m[0] for m in files if m}:
        files = {m: p for m, p in files.items() if not m or m[0] != "bin"}
    modules = set(files)
    code = {}
    for m, p in files.items():
        with open(p, encoding="utf-8") as f:
            code[m] = strip_test_items(strip_comments(f.read()))

    def resolve(m, path):
        segs = [s for s in path.split("::") if s]
        if not segs:
            return None
        if segs[0] == "crate":
            base, segs = (), segs[1:]
        elif segs[0] == "self":
            base, segs = m, segs[1:]
        elif segs[0] == "super":
            base = m
            while segs and segs[0] == "super":
                base, segs = base[:-1], segs[1:]
        else:
            return None
        target = base
        for s in segs:
            if target + (s,) in modules:
                target = target + (s,)
            else:
                break
        return target

    edges = defaultdict(set)
    for m, text in code.items():
        paths = []
        for tree in re.findall(r"\buse\s+([^;]+);", text):
            paths += use_paths(tree)
        paths += re.findall(r"\b(?:crate|super|self)(?:::\w+)+", text)
        for p in paths:
            t = resolve(m, p)
            if t is not None and t != m and t != ():
                edges[m].add(t)

    # Methods of inherent impl blocks, by defining module.
    defined = defaultdict(set)
    for m, text in code.items():
        for block in re.finditer(r"\bimpl(?:<[^>]*>)?\s+(\w+)(?:<[^>]*>)?\s*\{", text):
            depth, k = 0, block.end() - 1
            start = k
            while k < len(text):
                depth += text[k] == "{"
                depth -= text[k] == "}"
                if depth == 0:
                    break
                k += 1
            for name in re.findall(r"\bfn\s+(\w+)", text[start:k]):
                defined[name].add(m)
    for m, text in code.items():
        for name in set(re.findall(r"(?:\.|::)(\w+)\s*(?:::<[^>]*>)?\(", text)):
            owners = defined.get(name, set())
            if len(owners) == 1 and name not in COMMON:
                (owner,) = owners
                if owner != m:
                    edges[m].add(owner)

    def sccs(nodes, graph):
        index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

        def visit(v):
            index[v] = low[v] = counter[0]
            counter[0] += 1
            stack.append(v)
            on.add(v)
            for w in graph.get(v, ()):
                if w not in index:
                    visit(w)
                    low[v] = min(low[v], low[w])
                elif w in on:
                    low[v] = min(low[v], index[w])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(comp)

        sys.setrecursionlimit(10000)
        for v in sorted(nodes):
            if v not in index:
                visit(v)
        return out

    def name(m):
        return "crate::" + "::".join(m) if m else "crate"

    top = defaultdict(set)
    for a, bs in edges.items():
        for b in bs:
            if a and b and a[0] != b[0]:
                top[a[0]].add(b[0])
    found = False
    for label, nodes, graph, show in [
        ("module", modules, edges, name),
        ("directory", {m[0] for m in modules if m}, top, str),
    ]:
        loops = sccs(nodes, graph)
        count = sum(len(v) for v in graph.values())
        print(f"{label} graph: {len(nodes)} nodes, {count} edges, {len(loops)} loop(s)")
        for comp in loops:
            found = True
            members = set(comp)
            print("  loop:", ", ".join(sorted(show(c) for c in comp)))
            for a in sorted(comp):
                inside = sorted(show(b) for b in graph.get(a, ()) if b in members)
                print(f"    {show(a)} -> {', '.join(inside)}")
    sys.exit(1 if found else 0)


if __name__ == "__main__":
    main()
