package io.spinel.core.script.lua;

/** A light userdata; the only one scripts meet is the NULL pointer that stands for JSON null (cjson.null). */
public final class LightUserdata {
    public static final LightUserdata NULL = new LightUserdata();

    private LightUserdata() {
    }
}
