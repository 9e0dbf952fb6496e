package io.spinel.core.command;

import io.spinel.core.Client;

/** The code of one command: reads {@link Client#args()}, writes to {@link Client#reply()}. */
@FunctionalInterface
public interface CommandHandler {
    void execute(Client c);
}
