package calc;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import org.junit.Ignore;
import org.junit.Test;

public class CalcTest {
    @Test
    public void adds() {
        assertEquals(3, 1 + 2);
    }

    @Test
    public void failsWithMessage() {
        assertEquals("total mismatch", 3, 2 + 2);
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
    public void größe_名前() {}

    /** A nested test class: Ant runs it as its own suite, calc.CalcTest$NestedTest. */
    public static class NestedTest {
        @Test
        public void passesInNested() {}

        @Test
        public void failsInNested() {
            assertEquals("nested comparison", "[1, 3]", "[1, 2]");
        }
    }
}
