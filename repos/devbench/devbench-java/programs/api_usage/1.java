import java.util.Properties;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPath;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathExpression;
import javax.xml.xpath.XPathFactory;
import org.w3c.dom.Document;
import org.xml.sax.InputSource;
import java.io.StringReader;

public class XMLProcessingExample {
    private static final String XML_DATA = "<root><element>Value</element></root>";

    public static void main(String[] args) {
        try {
            // Initializing necessary objects for XML processing
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            DocumentBuilder builder = factory.newDocumentBuilder();
            InputSource is = new InputSource(new StringReader(XML_DATA));
            Document document = builder.parse(is);

            // Creating an XPath object
            XPathFactory xPathFactory = XPathFactory.newInstance();
            XPath xPath = xPathFactory.newXPath();

            // Defining an XPath expression
            String expression = "/root/element";
            XPathExpression xPathExpression = xPath.compile(expression);
            // Evaluating the XPath expression
            String result = (String) xPathExpression.evaluate(document, XPathConstants.STRING);

            // Assertions to validate the result
            assert result.equals("Value") : "XPath result mismatch";


            // Additional processing (this is different from golden completion)
            Properties outputProperties = new Properties();
            outputProperties.setProperty("method", "xml");
            outputProperties.setProperty("indent", "yes");

            // Cleanup code (if any)
            // No resources to clean up in this example
        } catch (Exception e) {
            e.printStackTrace();
        }
    }
}
