// Preact with htm: components as plain ES modules, no build step (issue 14). The import map in
// index.html points these bare names at the files the server serves from node_modules (/app/vendor/).
import { h, render, Fragment } from 'preact';
import htm from 'htm';

export const html = htm.bind(h);
export { h, render, Fragment };
export { useState, useEffect, useMemo, useRef, useCallback, useReducer } from 'preact/hooks';
