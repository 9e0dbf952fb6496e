package io.spinel.core;

/** Spinel's own version (INFO spinel_version, --version). */
public final class Version {
    private Version() {
    }

    public static final String SPINEL = "0.1.0";
}
