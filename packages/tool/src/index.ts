export { run, runMain, type Io } from './cli';
export { ExitCode, ToolError, type ExitCodeValue } from './exit-codes';
export { TOOL_NAME, TOOL_VERSION, BANNER, USAGE } from './about';
