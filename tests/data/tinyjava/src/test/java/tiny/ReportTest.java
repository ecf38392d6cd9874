package tiny;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ReportTest {
    @Test
    void describesStats() {
        Stats s = new Stats();
        s.add(1);
        s.add(7);
        assertEquals("sum=8 max=7", Report.describe(s));
    }
}
