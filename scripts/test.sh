#!/usr/bin/env bash
# Runs the linters (scripts/lint.sh) and every tap test file, and ends with one line "N passed, M failed".
# N and M count the tests inside the files (each t.test), not assertions.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
# The project's Node (.node/bin when scripts/setup.sh installed one) runs the tests.
source scripts/node-env.sh
# PostgreSQL tests run when a local server answers (CI machines have one).
if [ -z "${SAWT_TEST_PG_URL:-}" ] && command -v pg_isready >/dev/null && pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then
  export SAWT_TEST_PG_URL=postgres://postgres@127.0.0.1:5432/test
fi
# What only the tests use: Chromium (the pages' tests drive it) and nginx (the cluster behind a
# proxy). Without them (no apt, no root) those tests skip and say why.
source scripts/apt-packages.sh
ensure_packages chromium nginx || echo "test: chromium/nginx could not be installed; the page and proxy tests will skip" >&2
# Lint first (npm run lint): a finding counts as one failed test.
lint_failed=0
bash scripts/lint.sh || lint_failed=1
log=$(mktemp)
files=$(find test -name '*.test.js' -not -path '*/fixtures/*' | sort)
# The longest files first (1.5-3 min each on 2 cores), so that the two jobs end together: in
# alphabetical order the last of them ran alone at the end and the run took ~5 min longer.
slow="test/security/startup.test.js test/cli/admin.test.js test/billing/sequential.test.js test/cluster/cluster.test.js test/cluster/node-death.test.js test/security/uploads.test.js test/http/client-aborts.test.js test/denoise/quality.test.js test/cli/models-pull.test.js"
slow=$(for f in $slow; do [ -f "$f" ] && echo "$f"; done)  # a renamed file is not passed to tap
files="$slow $(grep -vxF -f <(echo "$slow") <<<"$files")"
npx tap --disable-coverage --allow-empty-coverage --jobs=2 --timeout=300 --reporter=tap $files 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
# In the TAP stream, a file's tests are the lines indented once; skipped ones carry "# SKIP".
passed=$(grep -E '^    ok ' "$log" | grep -vc '# SKIP' || true)
skipped=$(grep -E '^(    )?ok .*# SKIP' "$log" | wc -l)
failed=$(grep -cE '^    not ok ' "$log" || true)
file_failed=$(grep -cE '^not ok ' "$log" || true)
rm -f "$log"
# A file that crashed before running its tests still counts as a failure.
if [ "$failed" -lt "$file_failed" ]; then failed=$file_failed; fi
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then failed=1; fi
failed=$((failed + lint_failed))
echo "$passed passed, $failed failed, $skipped skipped"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
