#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# check.sh STEP...: the driver behind 'make' and 'make check'. Prepares the
# test tree, runs each step (checkpatch, kunit-VARIANT, kselftest-VARIANT,
# cfg-NAME (build-config.sh), run-tests (run-tests.sh), lint, scripts-selftest (test-fixtures.sh),
# harness (harness.sh: tools/testing/pidmap on the host))
# even when an earlier one failed, and ends with the summary line.
. "$(dirname "$0")/lib.sh"

# make check tests base + series/ as a whole: the options of the single
# targets (make kunit SRC=tree KUNIT_ARGS=..., make kselftest T=...) must
# not narrow it when they are left in the environment.
unset SRC KUNIT_ARGS KSFT_ARGS T NAME OUT PRISTINE GUEST_TREE
lock "$CHECK"
start=$(date +%s)
mkdir -p "$RESULTS"
rm -f "$RESULTS"/*.counts
steps=("$@")
"$REPO/scripts/deps.sh" ${DEPS:-}
"$REPO/scripts/base.sh"
if ! "$REPO/scripts/prepare-test-tree.sh"; then
	record series 0 1 0
	"$REPO/scripts/summary.sh" series "${steps[@]}" || true
	exit 1
fi
info "setup (packages, base, test tree): $(( $(date +%s) - start )) s"
times=()
for step in "${steps[@]}"; do
	t0=$(date +%s)
	case $step in
	checkpatch)   "$REPO/scripts/checkpatch.sh" || true ;;
	harness)      "$REPO/scripts/harness.sh" check || true ;;
	lint)         "$REPO/scripts/lint.sh" || true ;;
	kunit-*)      "$REPO/scripts/kunit.sh" "${step#kunit-}" || true ;;
	cfg-*)        "$REPO/scripts/build-config.sh" "${step#cfg-}" || true ;;
	kselftest-*)  "$REPO/scripts/kselftest.sh" "${step#kselftest-}" || true ;;
	run-tests)    "$REPO/scripts/run-tests.sh" || true ;;
	scripts-selftest) "$REPO/scripts/test-fixtures.sh" || true ;;
	*)            die "unknown step $step" ;;
	esac
	times+=("$step $(( $(date +%s) - t0 )) s")
done
info "wall time $(( $(date +%s) - start )) s; logs in $RESULTS"
info "per step: $(IFS=,; echo "${times[*]}" | sed 's/,/, /g')"
exec "$REPO/scripts/summary.sh" "${steps[@]}"
