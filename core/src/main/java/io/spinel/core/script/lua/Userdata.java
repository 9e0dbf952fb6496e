package io.spinel.core.script.lua;

/** Full userdata (only newproxy makes them here): identity plus an optional metatable. */
public final class Userdata {
    LuaTable metatable;
    LuaTable env;
}
