// The playground's Web Worker: every run, lint and explore happens here, so
// the page stays responsive while a world runs. Messages in:
// {id, command: 'run' | 'lint' | 'explore', text, options}; out: {id, result}
// or {id, error}.
import { load } from './twice_api.mjs';

const twice = load();

self.onmessage = async (event) => {
  const { id, command, text, options } = event.data;
  try {
    const api = await twice;
    if (!['run', 'lint', 'explore', 'story'].includes(command)) throw new Error(`unknown command ${command}`);
    self.postMessage({ id, result: api[command](text, options) });
  } catch (error) {
    self.postMessage({ id, error: String(error && error.stack ? error.stack : error) });
  }
};
