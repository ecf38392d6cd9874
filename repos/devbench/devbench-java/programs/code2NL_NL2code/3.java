import java.util.HashMap;
import java.util.Map;

/**
 * Utility class for managing business policies.
 * Provides methods to add, validate, and enforce business rules.
 */
public class PolicyManager {
    private Map<String, String> policies;

    /**
     * Constructor to initialize the PolicyManager with an empty policy set.
     */
    public PolicyManager() {
        this.policies = new HashMap<>();
    }

    /**
     * Adds a new policy to the policy manager.
     *
     * @param policyName the name of the policy
     * @param policyDefinition the definition or rules of the policy
     */
    public void addPolicy(String policyName, String policyDefinition) {
        policies.put(policyName, policyDefinition);
    }

    /**
     * Validates a policy against provided rules.
     *
     * @param policyName the name of the policy to validate
     * @return true if the policy is valid, false otherwise
     */
    public boolean validatePolicy(String policyName) {
        String policy = policies.get(policyName);
        // Simplified validation logic (actual implementation may vary)
        return policy != null && !policy.isEmpty();
    }
    /**
     * Enforces a policy by executing its rules.
     *
     * @param policyName the name of the policy to enforce
     * @return true if the policy was successfully enforced, false otherwise
     */
    public boolean enforcePolicy(String policyName) {
        String policy = policies.get(policyName);
        if (policy == null || policy.isEmpty()) {
            return false;
        }
        // Simplified enforcement logic (actual implementation may vary)
        System.out.println("Enforcing policy: " + policy);
        return true;
    }

    public static void main(String[] args) {
        PolicyManager manager = new PolicyManager();
        manager.addPolicy("DataRetention", "All data must be retained for 5 years.");
        assert manager.validatePolicy("DataRetention");
        manager.addPolicy("DataPrivacy", "Personal data must be anonymized.");
        assert manager.validatePolicy("DataPrivacy");
        assert !manager.validatePolicy("NonExistentPolicy");
    }
}
