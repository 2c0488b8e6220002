#!/usr/bin/env node
import { runMain } from './cli';

runMain(process.argv.slice(2));
