/**
 * Hermit's entries in a user's JSON/JSONC file, edited as text: inserted in the file's own
 * indentation and line endings, removed by cutting exactly what was inserted, so every other
 * byte comes back.
 */
import { parse } from "jsonc-parser";
import { describe, expect, it } from "vitest";
import { insertEntry, removeEntry } from "../../src/deploy/json-entries.js";
import type { ConfigEntry } from "../../src/hosts/types.js";

const server: ConfigEntry = { key: ["mcpServers", "hermit"], value: { command: "/usr/bin/node", args: ["cli.js", "serve"] } };
const member: ConfigEntry = { key: ["enabledMcpjsonServers"], value: "hermit", member: true };

const documents: Array<[string, string, ConfigEntry]> = [
  ["two servers, 2 spaces", '{\n  "mcpServers": {\n    "a": { "command": "x" },\n    "b": {\n      "command": "y"\n    }\n  }\n}\n', server],
  ["4 spaces, CRLF", '{\r\n    "mcpServers": {\r\n        "a": {\r\n            "command": "x"\r\n        }\r\n    }\r\n}\r\n', server],
  ["tabs, no final newline", '{\n\t"x": {\n\t\t"y": 1\n\t}\n}', server],
  ["empty document", "{}\n", server],
  ["empty object to add to", '{\n  "mcpServers": {}\n}\n', server],
  ["single-line object", '{ "mcpServers": { "a": 1 } }', server],
  ["comment after the last member", '{\n  "mcpServers": {\n    "a": { "command": "x" } // mine\n  }\n}\n', server],
  ["trailing comma and comment", '{\n  // top\n  "theme": "x", // trailing\n}\n', { key: ["mcp", "hermit"], value: { type: "local" } }],
  ["block comments", '{\n  /* settings */\n  "mcpServers": {\n    "a": 1 /* one */\n  }\n}\n', server],
  ["one-line array", '{\n  "enabledMcpjsonServers": ["a"]\n}\n', member],
  ["multi-line array", '{\n  "enabledMcpjsonServers": [\n    "a",\n    "b"\n  ]\n}\n', member],
  ["no array yet", '{\n  "permissions": { "allow": [] }\n}\n', member],
];

describe("insertEntry and removeEntry", () => {
  it.each(documents)("%s: the entry reads back, the rest is unchanged, removal restores every byte", (_name, text, config) => {
    const inserted = insertEntry(text, config);
    if ("problem" in inserted) throw new Error(inserted.problem);
    const data = parse(inserted.text, [], { allowTrailingComma: true });
    const original = parse(text, [], { allowTrailingComma: true });
    const container = config.key.slice(0, config.member ? undefined : -1).reduce((value, key) => value?.[key], data);
    if (config.member) expect(container).toEqual([...(config.key.reduce((value, key) => value?.[key], original) ?? []), config.value]);
    else expect(container[config.key.at(-1)!]).toEqual(config.value);
    if (text.includes("\r\n")) expect(inserted.text.replace(/\r\n/g, "")).not.toContain("\n");
    expect(removeEntry(inserted.text, inserted.entry)).toEqual({ text, exact: true });
  });

  it("keeps the user's later edits elsewhere in the file when removing hermit's entry", () => {
    const text = '{\n  "mcpServers": {\n    "a": { "command": "x" }\n  }\n}\n';
    const inserted = insertEntry(text, server);
    if ("problem" in inserted) throw new Error(inserted.problem);
    const edited = inserted.text.replace('"a": { "command": "x" }', '"a": { "command": "x2" },\n    "c": {}');
    const removed = removeEntry(edited, inserted.entry);
    expect(removed?.text).toBe('{\n  "mcpServers": {\n    "a": { "command": "x2" },\n    "c": {}\n  }\n}\n');
  });

  it("removes an entry whose surroundings the user reformatted with an editor (not byte-exact, said so)", () => {
    const inserted = insertEntry('{\n  "mcpServers": {\n    "a": 1\n  }\n}\n', server);
    if ("problem" in inserted) throw new Error(inserted.problem);
    const reformatted = JSON.stringify(JSON.parse(inserted.text));
    const removed = removeEntry(reformatted, inserted.entry);
    expect(removed?.exact).toBe(false);
    expect(JSON.parse(removed!.text)).toEqual({ mcpServers: { a: 1 } });
  });

  it("refuses what it cannot edit: not JSON, not an object, a key of the wrong type", () => {
    expect(insertEntry('{ "a": ', server)).toMatchObject({ problem: expect.stringMatching(/not valid JSON/) });
    expect(insertEntry("[1]", server)).toMatchObject({ problem: expect.stringMatching(/is not a JSON object/) });
    expect(insertEntry('{ "mcpServers": [] }', server)).toMatchObject({ problem: "'mcpServers' is not an object" });
  });
});
