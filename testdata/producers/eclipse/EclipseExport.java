import java.io.FileOutputStream;
import java.io.OutputStream;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.Locale;

import javax.xml.transform.OutputKeys;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.sax.SAXSource;
import javax.xml.transform.stream.StreamResult;

import org.xml.sax.Attributes;
import org.xml.sax.ContentHandler;
import org.xml.sax.DTDHandler;
import org.xml.sax.EntityResolver;
import org.xml.sax.ErrorHandler;
import org.xml.sax.InputSource;
import org.xml.sax.SAXException;
import org.xml.sax.XMLReader;
import org.xml.sax.helpers.AttributesImpl;

/**
 * Writes export.xml as Eclipse's JUnit view writes "Export..." of a test run
 * session: the SAX events of org.eclipse.jdt.internal.junit.model.
 * TestRunSessionSerializer (one <testsuite> per suite element, a <testcase>
 * per test with name, classname, time, ignored="true" for an ignored test,
 * <failure> or <error> holding <expected>/<actual> and the trace) through
 * the JDK's identity Transformer with the output properties of
 * JUnitModel.exportTestRunSession (UTF-8, indent, indent-amount 2). The
 * session is the one Eclipse shows for a JUnit 4 run of the calc package of
 * ../../runners/ant (calc.CalcTest and its nested class).
 *
 * Run: java EclipseExport.java export.xml
 */
public class EclipseExport implements XMLReader {
	private ContentHandler h;
	private final DecimalFormat time = new DecimalFormat("0.0##", new DecimalFormatSymbols(Locale.US));

	public static void main(String[] args) throws Exception {
		Transformer t = TransformerFactory.newInstance().newTransformer();
		t.setOutputProperty(OutputKeys.ENCODING, "UTF-8");
		t.setOutputProperty(OutputKeys.INDENT, "yes");
		t.setOutputProperty("{http://xml.apache.org/xalan}indent-amount", "2");
		try (OutputStream out = new FileOutputStream(args[0])) {
			t.transform(new SAXSource(new EclipseExport(), new InputSource()), new StreamResult(out));
		}
	}

	private static final String AT = "\n\tat ";
	private static final String JUNIT = AT + "org.junit.Assert.fail(Assert.java:89)";
	private static final String TAIL = AT + "java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)"
			+ AT + "java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke(NativeMethodAccessorImpl.java:77)"
			+ AT + "java.base/jdk.internal.reflect.DelegatingMethodAccessorImpl.invoke(DelegatingMethodAccessorImpl.java:43)"
			+ AT + "org.eclipse.jdt.internal.junit4.runner.JUnit4TestReference.run(JUnit4TestReference.java:93)"
			+ AT + "org.eclipse.jdt.internal.junit.runner.RemoteTestRunner.main(RemoteTestRunner.java:209)\n";

	public void parse(InputSource input) throws SAXException {
		h.startDocument();
		start("testrun", "name", "calc", "project", "calc", "tests", "8", "started", "7",
				"failures", "3", "errors", "1", "ignored", "1");

		start("testsuite", "name", "calc.CalcTest", "time", time.format(0.087));
		testcase("adds", "calc.CalcTest", 0.0, false);
		end("testcase");
		testcase("failsWithMessage", "calc.CalcTest", 0.002, false);
		failure("failure", null, null, "java.lang.AssertionError: total mismatch expected:<3> but was:<4>"
				+ AT + "org.junit.Assert.fail(Assert.java:89)" + AT + "org.junit.Assert.failNotEquals(Assert.java:835)"
				+ AT + "org.junit.Assert.assertEquals(Assert.java:647)"
				+ AT + "calc.CalcTest.failsWithMessage(CalcTest.java:17)" + TAIL);
		end("testcase");
		testcase("leaksFakeSecrets", "calc.CalcTest", 0.001, false);
		failure("failure", null, null, "java.lang.AssertionError: login failed for https://ci:password=hunter2-not-real@example.invalid "
				+ "headers Authorization: Bearer abc.def.ghi key AKIAIOSFODNN7EXAMPLE" + JUNIT
				+ AT + "calc.CalcTest.leaksFakeSecrets(CalcTest.java:22)" + TAIL);
		end("testcase");
		testcase("throwsOutsideAnAssertion", "calc.CalcTest", 0.01, false);
		failure("error", null, null, "java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"<local1>\" is null"
				+ AT + "calc.CalcTest.throwsOutsideAnAssertion(CalcTest.java:29)" + TAIL);
		end("testcase");
		testcase("skipped", "calc.CalcTest", Double.NaN, true);
		end("testcase");
		testcase("größe_名前", "calc.CalcTest", 0.001, false);
		end("testcase");
		end("testsuite");

		start("testsuite", "name", "calc.CalcTest$NestedTest", "time", time.format(0.012));
		testcase("failsInNested", "calc.CalcTest$NestedTest", 0.012, false);
		failure("failure", "[1, 3]", "[1, 2]", "org.junit.ComparisonFailure: nested comparison expected:<[1, [3]]> but was:<[1, [2]]>"
				+ AT + "org.junit.Assert.assertEquals(Assert.java:117)"
				+ AT + "calc.CalcTest$NestedTest.failsInNested(CalcTest.java:47)" + TAIL);
		end("testcase");
		testcase("passesInNested", "calc.CalcTest$NestedTest", 0.0, false);
		end("testcase");
		end("testsuite");

		end("testrun");
		h.endDocument();
	}

	private void testcase(String name, String classname, double seconds, boolean ignored) throws SAXException {
		AttributesImpl a = attrs("name", name, "classname", classname);
		if (!Double.isNaN(seconds))
			a.addAttribute("", "", "time", "CDATA", time.format(seconds));
		if (ignored)
			a.addAttribute("", "", "ignored", "CDATA", "true");
		h.startElement("", "testcase", "testcase", a);
	}

	private void failure(String kind, String expected, String actual, String trace) throws SAXException {
		h.startElement("", kind, kind, new AttributesImpl());
		if (expected != null) {
			h.startElement("", "expected", "expected", new AttributesImpl());
			h.characters(expected.toCharArray(), 0, expected.length());
			h.endElement("", "expected", "expected");
		}
		if (actual != null) {
			h.startElement("", "actual", "actual", new AttributesImpl());
			h.characters(actual.toCharArray(), 0, actual.length());
			h.endElement("", "actual", "actual");
		}
		h.characters(trace.toCharArray(), 0, trace.length());
		h.endElement("", kind, kind);
	}

	private static AttributesImpl attrs(String... kv) {
		AttributesImpl a = new AttributesImpl();
		for (int i = 0; i < kv.length; i += 2)
			a.addAttribute("", "", kv[i], "CDATA", kv[i + 1]);
		return a;
	}

	private void start(String name, String... kv) throws SAXException {
		h.startElement("", name, name, attrs(kv));
	}

	private void end(String name) throws SAXException {
		h.endElement("", name, name);
	}

	public void setContentHandler(ContentHandler handler) { h = handler; }
	public ContentHandler getContentHandler() { return h; }
	public void setErrorHandler(ErrorHandler handler) {}
	public ErrorHandler getErrorHandler() { return null; }
	public void parse(String systemId) {}
	public void setDTDHandler(DTDHandler handler) {}
	public DTDHandler getDTDHandler() { return null; }
	public void setEntityResolver(EntityResolver resolver) {}
	public EntityResolver getEntityResolver() { return null; }
	public void setProperty(String name, Object value) {}
	public Object getProperty(String name) { return null; }
	public void setFeature(String name, boolean value) {}
	public boolean getFeature(String name) { return false; }
}
