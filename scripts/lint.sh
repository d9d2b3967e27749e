#!/usr/bin/env bash
# `npm run lint`: ESLint (typescript-eslint rules and the formatting rules of
# eslint.config.js) on every TypeScript and JavaScript file, clang-format
# (.clang-format) and cpplint (CPPLINT.cfg) on native/. Exits non-zero on any
# finding. `npm run format` fixes what the formatters can.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
native=$(git ls-files 'native/*.cc' 'native/*.h' 2>/dev/null || ls native/*.cc native/*.h)
status=0
if [ "${1:-}" = "--fix" ]; then
  npx eslint --fix . || status=1
  clang-format -i $native || status=1
  exit $status
fi
npx eslint --max-warnings=0 . || status=1
for tool in clang-format cpplint; do
  command -v "$tool" >/dev/null || { echo "lint: $tool not found (scripts/setup.sh installs it)" >&2; exit 1; }
done
clang-format --dry-run --Werror $native || status=1
cpplint --quiet $native 2>&1 | grep -v '^Done processing' || true
cpplint --quiet $native >/dev/null 2>&1 || status=1
[ $status -eq 0 ] && echo "lint: clean"
exit $status
