#!/usr/bin/env node
/**
 * The ES module entry of earlier installs and client configs (`node …/dist/cli/main.js`): it runs the
 * CommonJS entry, bin.cts, which package.json's `bin` names.
 */
import './bin.cjs';
