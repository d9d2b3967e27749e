#!/usr/bin/env bash
# bash bench/code-size.sh [TREE] [--rev REV] [--by-area]: the size of Sawt's code (issue 29 item 7),
# as non-blank lines, in a checkout's working tree (default: this one) or at commit REV of it.
# Rule: the non-blank lines of the .ts, .cc and .h files under packages/, plugins/ and native/ (in a
# working tree: those git tracks or would track), leaving out
#  - generated files: packages/client/src/generated/ and declaration files (*.d.ts);
#  - tests: any path with a test/ or tests/ folder or a .test. name (none today: tests live in test/);
#  - the features built beside issue 29, on every tree alike: long-form jobs (plugins/jobs/,
#    packages/cli/src/commands/jobs.ts, packages/client/src/jobs.ts), pronunciation dictionaries
#    (plugins/dictionaries/), SSML (any ssml/ folder or ssml-* file), the normalizer
#    (plugins/engine/src/frontend/normalize/) and the diacritizer's frontend/diacritize.ts,
#    dialects.ts and diacritic-corrections*.ts (issue 30).
# At a5d3535 (the commit before issue 29's first) this gives 22,821.
set -euo pipefail
tree=. rev= by_area=false
while [ $# -gt 0 ]; do
  case $1 in
    --by-area) by_area=true ;;
    --rev) rev=$2; shift ;;
    *) tree=$1 ;;
  esac
  shift
done
cd "$tree"
if [ -n "$rev" ]; then list() { git ls-tree -r --name-only "$rev" -- packages plugins native; }; show() { git show "$rev:$1"; }
else list() { git ls-files --cached --others --exclude-standard -- packages plugins native; }; show() { [ -f "$1" ] && cat "$1"; }; fi
files=$(list | grep -E '\.(ts|cc|h)$' |
  grep -vE '\.d\.ts$|^packages/client/src/generated/|(^|/)tests?/|\.test\.' |
  grep -vE '^plugins/(jobs|dictionaries)/|(^|/)ssml(/|-)|^plugins/engine/src/frontend/normalize/|^plugins/engine/src/frontend/(diacritize|dialects|diacritic-corrections[a-z-]*)\.ts$|^packages/(cli/src/commands|client/src)/jobs\.ts$')
counted() { while read -r f; do printf '%s %s\n' "$( (show "$f" || true) | grep -c '[^[:space:]]' || true)" "$f"; done <<<"$files"; }
counts=$(counted)
if $by_area; then
  awk '{ n = split($2, p, "/"); s[n > 2 ? p[1] "/" p[2] : p[1]] += $1 } END { for (k in s) print s[k], k }' <<<"$counts" | sort -k2
fi
awk '{ s += $1 } END { print s }' <<<"$counts"
