#!/usr/bin/env node
import { runCli } from './program/program';

process.exitCode = await runCli(process.argv.slice(2));
