package io.spinel.core.persist;

import java.util.List;

/**
 * What persistence needs from the function libraries (FUNCTION LOAD): their source code to save
 * (RDB FUNCTION2 records, FUNCTION LOAD commands in a rewritten AOF) and a way to load a saved
 * library back. Registered by the scripting code with {@link Persistence#setFunctionStore};
 * without one, saved libraries are skipped on load with a warning.
 */
public interface FunctionStore {
    /** The source code of every library, in any order. */
    List<byte[]> libraries();

    /**
     * Loads a library from an RDB file or payload; {@code replace} lets it take the place of a
     * library of the same name (DEBUG RELOAD MERGE), which otherwise fails the load.
     *
     * @throws RuntimeException with the reason when the code cannot be loaded
     */
    void load(byte[] code, boolean replace);

    /** Removes every library (DEBUG RELOAD empties them with the data set). */
    void flush();
}
