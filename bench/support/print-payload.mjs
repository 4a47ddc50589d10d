#!/usr/bin/env node
/** Prints payload(<bytes>) (content.mjs) to stdout and exits: a terminal with known output. */
import { writeSync } from "node:fs";
import { payload } from "./content.mjs";

const bytes = payload(Number(process.argv[2]));
let offset = 0;
while (offset < bytes.length) offset += writeSync(1, bytes, offset);
