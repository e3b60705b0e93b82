package calc;

/** A tiny class for the tests to call. */
public final class Calc {
    private Calc() {}

    public static int add(int a, int b) {
        return a + b;
    }
}
