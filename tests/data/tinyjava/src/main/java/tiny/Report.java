package tiny;

/** Formats a summary of a Stats object. */
public final class Report {
    private Report() {}

    public static String describe(Stats stats) {
        StringBuilder out = new StringBuilder();
        out.append("sum=").append(stats.sum());
        out.append(" max=").append(stats.max());
        return out.toString();
    }
}
