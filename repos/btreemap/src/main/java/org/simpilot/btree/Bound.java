package org.simpilot.btree;

/** Describes how one end of a key range is delimited. */
public enum Bound {
    /** The endpoint key itself belongs to the range. */
    INCLUSIVE,
    /** The endpoint key is excluded from the range. */
    EXCLUSIVE,
    /** The range is open on this side; the endpoint key is ignored. */
    UNBOUNDED;

    /** Maps a flag to {@link #INCLUSIVE} or {@link #EXCLUSIVE}. */
    public static Bound of(boolean inclusive) {
        return inclusive ? INCLUSIVE : EXCLUSIVE;
    }

    /** Whether {@code cmp = compare(key, endpoint)} is admitted by an upper endpoint. */
    boolean admitsFromAbove(int cmp) {
        switch (this) {
            case INCLUSIVE:
                return cmp <= 0;
            case EXCLUSIVE:
                return cmp < 0;
            default:
                return true;
        }
    }
}
