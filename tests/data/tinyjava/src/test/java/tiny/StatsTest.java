package tiny;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class StatsTest {
    @Test
    void sumsAndClamps() {
        Stats s = new Stats();
        s.add(3);
        s.add(5000);
        assertEquals(1003, s.sum());
        assertEquals(1000, s.max());
    }

    @Test
    void meanOfSamples() {
        Stats s = new Stats();
        s.add(2);
        s.add(4);
        assertEquals(3.0, s.mean());
        assertThrows(IllegalStateException.class, () -> new Stats().mean());
    }
}
