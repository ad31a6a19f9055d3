# SPDX-License-Identifier: GPL-2.0
# pidmap: a patch series for Debian's linux-source-6.12, tested in QEMU.
# Every target is a script in scripts/; 'make help' lists them.
#
# WORK=dir   where the kernel trees, builds and logs live
#            (default: $XDG_CACHE_HOME/pidmap or ~/.cache/pidmap)
# JOBS=n     parallel build jobs (default: nproc)
# T=glob     kselftest programs to run, as DIR/PROGRAM (e.g. T='pid/*')
# SRC=tree   kunit, kselftest and boot use the editing tree's working copy,
#            uncommitted edits included (built in $WORK/build/tree-VARIANT)
# VARIANT=v  the kunit/ variant kunit, kselftest and boot use (default: default)
# KUNIT_ARGS=..  more kunit.py run options (--run_isolated=suite, --list_tests)

SHELL := /bin/bash
S := scripts
VARIANT ?= default

.PHONY: all check check-debug harness stress bench-harness check-configs check-clients bench-clients check-prefixes check-kcsan check-mutants kunit kselftest kselftest-pristine kselftest-run-tests lint checkpatch bench deps base tree series boot clean help mail range-diff

all:                      ## the main job: apply series/, run KUnit (default variant) in QEMU
	@$(S)/check.sh kunit-default

check:                    ## every test that fits 45 min cold: checkpatch, the userspace harness (64-bit, 32-bit, 64 KiB pages), KUnit (default, debug), defconfig without KUnit, kselftests (default), W=1/sparse, the scripts' fixtures
	@$(S)/check.sh scripts-selftest checkpatch harness kunit-default cfg-x86_64-defconfig \
		kunit-debug kselftest-default lint

check-debug:              ## KUnit and the kselftests on the debug kernel (KASAN, lockdep, kmemleak, full preemption): an 8 min guest
	@$(S)/check.sh kunit-debug kselftest-debug

check-configs:            ## the long matrix: KUnit on i386, rt and arm64 64K pages; defconfig/allnoconfig links, i386, PREEMPT_RT builds; kselftest-run-tests
	@DEPS=arm64 $(S)/check.sh run-tests kunit-i386 cfg-x86_64-defconfig-vmlinux cfg-x86_64-allnoconfig \
		cfg-i386-defconfig cfg-x86_64-rt kunit-rt kunit-arm64-64k

check-clients:            ## CRIU, systemd, containers, procps on pristine 6.12 and on the series, side by side in guests of this machine's Debian (VARIANTS='default debug', SCENARIOS=glob)
	@$(S)/deps.sh clients && $(S)/base.sh && $(S)/prepare-test-tree.sh && $(S)/clients.sh $(VARIANTS)

bench-clients:            ## time ps -e and top -b -n 1 with 100,000 threads on pristine 6.12 and on the series (-icount guests; THREADS=n; not a test)
	@$(S)/deps.sh clients && $(S)/base.sh && $(S)/prepare-test-tree.sh && $(S)/clients.sh timing

check-prefixes:           ## every prefix of series/ builds and passes its KUnit suites (x86_64), and its pid selftests where the prefix changes them
	@$(S)/deps.sh && $(S)/base.sh && $(S)/check-prefixes.sh

check-mutants:            ## every mutant in kunit/mutants/ (one safety measure undone each) fails KUnit or the harness (MUTANTS=glob)
	@$(S)/deps.sh && $(S)/base.sh && $(S)/check-mutants.sh $(MUTANTS)

check-kcsan:              ## KUnit under the data race detector (kunit/kcsan.config)
	@$(S)/check.sh kunit-kcsan

bench:                    ## pidmap vs the IDR path and a shared add (host threads), vs the IDR path in a guest; PRIO_USER, forks, locks: pristine vs patched (not a test)
	@$(S)/deps.sh && $(S)/base.sh && $(S)/prepare-test-tree.sh && $(S)/harness.sh bench && \
		$(S)/bench.sh && $(S)/kunit.sh default && $(S)/bench-system.sh

bench-harness:            ## only the host-thread scaling bench of tools/testing/pidmap: pidmap, the IDR path, one shared add (about a minute)
	@$(S)/deps.sh && $(S)/base.sh && $(S)/prepare-test-tree.sh && $(S)/harness.sh bench

harness:                  ## only the userspace harness tools/testing/pidmap: model checks, TSan/ASan stress (SRC=tree)
	@$(S)/deps.sh && $(S)/base.sh && $(S)/prepare-test-tree.sh && $(S)/harness.sh check

stress:                   ## the harness's 10^8 operations under TSan and under ASan (minutes; not in make check)
	@$(S)/deps.sh && $(S)/base.sh && $(S)/prepare-test-tree.sh && $(S)/harness.sh stress

kunit:                    ## only KUnit (FILTER='suite.case', VARIANT=, SRC=tree, KUNIT_ARGS=)
	@$(S)/deps.sh && $(S)/base.sh && $(S)/prepare-test-tree.sh && $(S)/kunit.sh $(VARIANT) $(FILTER)

lint:                     ## only W=1 + sparse (patched vs pristine) and kernel-doc, on the kernel 'make kunit' built
	@$(S)/deps.sh && $(S)/prepare-test-tree.sh && $(S)/lint.sh

kselftest:                ## only the kselftests, on the kernel 'make kunit' built (T=, KSFT_ARGS=)
	@$(S)/prepare-test-tree.sh && $(S)/kselftest.sh $(VARIANT)

kselftest-pristine:       ## the known-failures rule: the series' selftests and upstream's on pristine 6.12; only kselftest/known-failures.txt may fail (T=)
	@$(S)/deps.sh && $(S)/base.sh && $(S)/prepare-test-tree.sh && PRISTINE=1 $(S)/kselftest.sh default

kselftest-run-tests:      ## the series' selftests through the kernel's entry point, make -C tools/testing/selftests TARGETS=pid run_tests, in a guest whose root is this machine's (9p)
	@$(S)/check.sh run-tests

checkpatch:               ## only checkpatch --strict on series/
	@$(S)/deps.sh && $(S)/base.sh && $(S)/prepare-test-tree.sh && $(S)/checkpatch.sh

deps:                     ## install the Debian packages the pipeline needs
	@$(S)/deps.sh

base:                     ## record the pristine Debian tree as a base commit
	@$(S)/deps.sh && $(S)/base.sh

tree:                     ## prepare or refresh the editing tree (base + series/)
	@$(S)/deps.sh && $(S)/base.sh && $(S)/tree.sh

series:                   ## export the editing tree's commits into series/
	@$(S)/series.sh

boot:                     ## boot the kernel 'make kunit' built to a busybox shell
	@$(S)/boot.sh $(VARIANT)

clean:                    ## remove builds and logs (keeps the trees and ccache)
	@. $(S)/lib.sh && rm -rf "$$BUILD" "$$RESULTS" "$$WORK/apply.stamp" && \
		echo "removed $$BUILD and $$RESULTS"

help:                     ## this list
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | \
		sed -E 's/^([a-z-]+):.*## /  make \1\t/' | expand -t 20
	@. $(S)/lib.sh && echo "  work directory: $$WORK"

mail:                     ## the posting, made by b4, in $WORK/mail/v<N>/ (TOPIC=name: one topic alone; RFC=1: [RFC PATCH vN])
	@$(S)/deps.sh mail && $(S)/base.sh && $(S)/mail.sh $(TOPIC)

range-diff:               ## git range-diff: series/ at OLD (a revision of this repository, default HEAD) vs series/ now
	@$(S)/deps.sh && $(S)/base.sh && $(S)/range-diff.sh $(OLD)
