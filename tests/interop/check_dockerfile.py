#!/usr/bin/env python3
"""Lints the repository's Dockerfile, parsed by Docker's own parser (the `dockerfile` package
wraps moby/buildkit's Go parser), against the rules the image promises.

    python3 check_dockerfile.py REPO_DIR

No container engine is needed (CI machines have none, and no registry to pull base images
from): each rule is read from the parsed instructions. Prints one line per rule and
`N passed, M failed`; exit status 0 only if M == 0.
"""

from __future__ import annotations

import fnmatch
import re
import sys
from pathlib import Path

import dockerfile


def stages(cmds):
    out = []
    for c in cmds:
        if c.cmd == "FROM":
            out.append([c])
        elif out:
            out[-1].append(c)
    return out


def main(argv: list[str]) -> int:
    repo = Path(argv[0]).resolve()
    cmds = dockerfile.parse_file(str(repo / "Dockerfile"))
    ignored = [
        line.strip().rstrip("/")
        for line in (repo / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    all_stages = stages(cmds)
    final = all_stages[-1]
    results: list[tuple[str, list[str]]] = []

    def rule(name: str, problems: list[str]) -> None:
        results.append((name, problems))

    rule("multi-stage: the toolchain stays out of the runtime image",
         [] if len(all_stages) >= 2 and "rust" not in final[0].value[0] else
         [f"final stage FROM {final[0].value[0]}"])

    unpinned = []
    for s in all_stages:
        image = s[0].value[0]
        tag = image.rsplit(":", 1)[1] if ":" in image.rsplit("/", 1)[-1] else ""
        if not tag or tag == "latest" or "/" not in image:
            unpinned.append(image)
    rule("base images named in full and pinned to a tag", unpinned)

    msrv = re.search(r'^rust-version = "([\d.]+)"', (repo / "Cargo.toml").read_text(), re.M)
    build_image = all_stages[0][0].value[0]
    rule("the build image's Rust is the crate's rust-version",
         [] if msrv and f"rust:{msrv.group(1)}" in build_image else [f"{build_image} vs {msrv and msrv.group(1)}"])

    users = [c.value[0] for c in final if c.cmd == "USER"]
    uid = users[-1].split(":")[0] if users else ""
    rule("runs as a non-root user (numeric uid, so Kubernetes' runAsNonRoot can check it)",
         [] if uid.isdigit() and int(uid) != 0 else [f"USER {users}"])

    entry = [c for c in final if c.cmd == "ENTRYPOINT"]
    copied_to = {c.value[-1] for c in final if c.cmd == "COPY"}
    problems = []
    if not entry or not entry[-1].json:
        problems.append("ENTRYPOINT missing or in shell form (signals would not reach the binary)")
    elif entry[-1].value[0] not in copied_to:
        problems.append(f"ENTRYPOINT {entry[-1].value[0]} is not a path the final stage copies")
    rule("ENTRYPOINT in exec form, naming the copied binary", problems)

    rule("no ADD (COPY says what it does)", [c.original for c in cmds if c.cmd == "ADD"])

    apt = []
    for c in cmds:
        if c.cmd == "RUN" and "apt-get install" in c.value[0]:
            text = c.value[0]
            if text.count("apt-get install") != text.count("--no-install-recommends"):
                apt.append("apt-get install without --no-install-recommends")
            if "rm -rf /var/lib/apt/lists" not in text:
                apt.append("apt lists not removed in the same layer")
    rule("apt: no recommends, lists removed in the same layer", apt)

    final_text = " ".join(" ".join(c.value) for c in final if c.cmd == "RUN")
    rule("CA roots in the runtime image (HTTPS to the registry and the buckets)",
         [] if "ca-certificates" in final_text else ["ca-certificates not installed"])

    missing = []
    for c in cmds:
        if c.cmd != "COPY" or any(f.startswith("--from") for f in c.flags):
            continue
        for src in c.value[:-1]:
            if not (repo / src).exists():
                missing.append(f"{src} does not exist")
            elif any(fnmatch.fnmatch(src, pat) or src == pat for pat in ignored):
                missing.append(f"{src} is excluded by .dockerignore")
    rule("every COPY source is in the build context", missing)

    ignored_needed = [p for p in ("target", ".git") if p not in ignored]
    rule(".dockerignore keeps target/ and .git/ out of the context", ignored_needed)

    passed = 0
    for name, problems in results:
        if problems:
            print(f"FAIL {name}: " + "; ".join(problems))
        else:
            passed += 1
            print(f"ok   {name}")
    print(f"{passed} passed, {len(results) - passed} failed")
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
