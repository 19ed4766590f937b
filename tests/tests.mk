# Test legs of `make test`, in the order they run.  Fragments add theirs.
TEST_LEGS := test-unit test-host test-kernel test-gdb
