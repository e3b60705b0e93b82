package calc;

import static org.junit.Assert.assertArrayEquals;

import org.junit.Test;
import org.junit.experimental.runners.Enclosed;
import org.junit.runner.RunWith;

@RunWith(Enclosed.class)
public class OuterTest {
    public static class InnerTest {
        @Test
        public void passesInInner() {}

        @Test
        public void failsInInner() {
            assertArrayEquals("nested comparison", new int[] {1, 2}, new int[] {1, 3});
        }
    }
}
