import { defineToken } from '@evmnode/core';

/** What the fixture plugins did, in order, for tests to read. */
export const fixtureEvents: string[] = [];

/** A service the recorder fixture provides and the consumer fixture depends on. */
export const EventLog = defineToken<string[]>('EventLog');

/** A service nothing provides. */
export const Unprovided = defineToken<string>('UnprovidedService');
