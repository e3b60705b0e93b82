package calc;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import org.junit.Ignore;
import org.junit.Test;

public class CalcTest {
    // Surefire reruns a failing test in the same JVM, so a static counter
    // tells the first attempt from the next ones.
    private static int flakyAttempts;
    private static int flakyErrorAttempts;

    @Test
    public void adds() {
        assertEquals(3, Calc.add(1, 2));
    }

    @Test
    public void failsWithMessage() {
        assertEquals("total mismatch", 3, Calc.add(2, 2));
    }

    @Test
    public void leaksFakeSecrets() {
        fail("login failed for https://ci:password=hunter2-not-real@example.invalid "
                + "headers Authorization: Bearer abc.def.ghi key AKIAIOSFODNN7EXAMPLE");
    }

    @Test
    public void throwsOutsideAnAssertion() {
        String missing = null;
        missing.length();
    }

    @Ignore("not supported on this platform")
    @Test
    public void skipped() {}

    @Test
    public void flakyPassesOnRerun() {
        flakyAttempts++;
        assertTrue("attempt " + flakyAttempts + " fails on purpose", flakyAttempts > 1);
    }

    @Test
    public void flakyErrorPassesOnRerun() {
        flakyErrorAttempts++;
        if (flakyErrorAttempts == 1) {
            throw new IllegalStateException("first attempt breaks on purpose");
        }
    }

    @Test
    public void größe_名前() {
        assertEquals("GRÖSSE", "größe".toUpperCase().replace("ß", "SS"));
    }
}
