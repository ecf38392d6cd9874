import java.util.HashMap;
import java.util.Map;

/**
 * Represents a simple cache manager that handles cache storage and invalidation.
 */
public class SimpleCacheManager {
    private Map<String, String> cache;

    /**
     * Initializes the SimpleCacheManager with an empty cache.
     */
    public SimpleCacheManager() {
        this.cache = new HashMap<>();
    }

    /**
     * Stores a value in the cache with the given key.
     *
     * @param key The key for the cache entry.
     * @param value The value to be stored in the cache.
     */
    public void put(String key, String value) {
        cache.put(key, value);
    }

    /**
     * Retrieves a value from the cache by its key.
     *
     * @param key The key for the cache entry.
     * @return The value associated with the key, or null if the key is not present.
     */
    public String get(String key) {
        return cache.get(key);
    }

    /**
     * Invalidates (removes) a cache entry by its key.
     *
     * @param key The key for the cache entry to be invalidated.
     * @return The value that was removed, or null if the key was not present.
     */
    public String invalidate(String key) {
        return cache.remove(key);
    }
    public static void main(String[] args) {
        SimpleCacheManager cacheManager = new SimpleCacheManager();
        cacheManager.put("testKey", "testValue");
        assert "testValue".equals(cacheManager.get("testKey"));
        assert "testValue".equals(cacheManager.invalidate("testKey"));
        assert cacheManager.get("testKey") == null;
        System.out.println("All assertions passed.");
    }
}