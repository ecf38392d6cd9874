import java.io.StringReader;
import java.io.StringWriter;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.Transformer;
import javax.xml.transform.TransformerFactory;
import javax.xml.transform.dom.DOMSource;
import javax.xml.transform.stream.StreamResult;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.xml.sax.InputSource;

class Person {
    private String name;
    private int age;

    public Person() {}

    public Person(String name, int age) {
        this.name = name;
        this.age = age;
    }

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public int getAge() {
        return age;
    }

    public void setAge(int age) {
        this.age = age;
    }
}

public class XMLProcessingExample {
    public static void main(String[] args) throws Exception {
        Person person = new Person("John Doe", 30);

        // Create DOM document
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        DocumentBuilder builder = factory.newDocumentBuilder();
        Document document = builder.newDocument();

        // Create XML elements
        Element rootElement = document.createElement("person");
        document.appendChild(rootElement);
        
        Element nameElement = document.createElement("name");
        nameElement.appendChild(document.createTextNode(person.getName()));
        rootElement.appendChild(nameElement);
        
        Element ageElement = document.createElement("age");
        ageElement.appendChild(document.createTextNode(String.valueOf(person.getAge())));
        rootElement.appendChild(ageElement);

        // Transform DOM to XML string
        TransformerFactory transformerFactory = TransformerFactory.newInstance();
        Transformer transformer = transformerFactory.newTransformer();
        StringWriter writer = new StringWriter();
        transformer.transform(new DOMSource(document), new StreamResult(writer));

        String xml = writer.toString();
        System.out.println("Generated XML:\n" + xml);

        // Parse XML back to DOM
        StringReader reader = new StringReader(xml);
        Document parsedDocument = builder.parse(new InputSource(reader));
        
        // Extract values from parsed XML
        Element parsedRoot = parsedDocument.getDocumentElement();
        String parsedName = parsedRoot.getElementsByTagName("name").item(0).getTextContent();
        int parsedAge = Integer.parseInt(parsedRoot.getElementsByTagName("age").item(0).getTextContent());
        
        // Create Person object from parsed data
        Person unmarshalledPerson = new Person(parsedName, parsedAge);


        // Assertions to verify the correctness of the unmarshalled object
        assert unmarshalledPerson != null : "Unmarshalled Person should not be null";
        assert "John Doe".equals(unmarshalledPerson.getName()) : "Name should be 'John Doe'";
        assert unmarshalledPerson.getAge() == 30 : "Age should be 30";

        // Clean up resources
        writer.close();
        reader.close();
    }
}
