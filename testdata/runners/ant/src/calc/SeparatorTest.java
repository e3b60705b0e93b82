package calc;

import static org.junit.Assert.assertTrue;

import java.util.Arrays;
import java.util.Collection;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;
import org.junit.runners.Parameterized.Parameters;

@RunWith(Parameterized.class)
public class SeparatorTest {
    @Parameters(name = "{0}")
    public static Collection<Object[]> names() {
        return Arrays.asList(new Object[][] {{"a::b"}, {"x > y"}, {"p › q"}});
    }

    private final String name;

    public SeparatorTest(String name) {
        this.name = name;
    }

    @Test
    public void separator() {
        assertTrue(!name.isEmpty());
    }
}
