#!/usr/bin/env node
// Placeholder until the tool lands (issue 16).
console.error("orrery: not built yet");
process.exit(1);
