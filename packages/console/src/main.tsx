import { render } from 'preact';
import { App } from './app';
import './styles.css';

const root = document.getElementById('app')!;
root.textContent = ''; // the boot line of index.html
render(<App />, root);
// Milliseconds from navigation start to the first render, for the browser test and docs/console.md.
(window as unknown as { __consoleRendered?: number }).__consoleRendered = performance.now();
