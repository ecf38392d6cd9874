import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * ConfigurationManager is a utility class for managing application settings dynamically.
 * It ensures thread-safe operations for retrieving, updating, and clearing configuration settings.
 *
 * <p>Example usage:</p>
 * <pre>
 * ConfigurationManager configManager = new ConfigurationManager();
 * configManager.updateSetting("timeout", "30");
 * String timeout = configManager.getSetting("timeout");
 * configManager.clearSettings();
 * </pre>
 *
 * <p>Thread Safety:</p>
 * <p>All methods in this class are thread-safe. A ReentrantLock is used to synchronize access to the configuration settings.</p>
 *
 * <p>Error Handling:</p>
 * <p>The methods do not throw exceptions but will return null if a setting is not found or if the map is cleared.</p>
 *
 * @param key the configuration key
 * @return the value associated with the given key, or null if the key is not found
 */

public class ConfigurationManager {

    private final Map<String, String> configSettings;
    private final Lock lock;

    public ConfigurationManager() {
        this.configSettings = new HashMap<>();
        this.lock = new ReentrantLock();
    }

    /**
     * Retrieves the value of a configuration setting.
     * @param key the configuration key
     * @return the value associated with the given key
     */
    public String getSetting(String key) {
        lock.lock();
        try {
            return configSettings.get(key);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Updates the value of a configuration setting.
     * @param key the configuration key
     * @param value the new value for the configuration setting
     */
    public void updateSetting(String key, String value) {
        lock.lock();
        try {
            configSettings.put(key, value);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Clears all configuration settings.
     */
    public void clearSettings() {
        lock.lock();
        try {
            configSettings.clear();
        } finally {
            lock.unlock();
        }
    }

    public static void main(String[] args) {
        ConfigurationManager configManager = new ConfigurationManager();
        configManager.updateSetting("timeout", "30");
        configManager.updateSetting("theme", "dark");

        // Assertions to verify the behavior
        assert "30".equals(configManager.getSetting("timeout"));
        assert "dark".equals(configManager.getSetting("theme"));
        configManager.clearSettings();
        // Verify settings are cleared
        assert configManager.getSetting("timeout") == null;
        assert configManager.getSetting("theme") == null;
    }
}
