package io.periodtables.verification;

/**
 * One check of the contract and its outcome: what was expected, what was found.
 *
 * @param name what is checked, a few words
 * @param passed whether what was found is what was expected
 */
record Check(String name, boolean passed, String expected, String found) {

    /** {@code PASS|FAIL <name>: expected …, found …}. */
    String line() {
        return (passed ? "PASS " : "FAIL ") + name + ": expected " + expected + ", found " + found;
    }
}
