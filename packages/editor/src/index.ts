// @linework/editor: the graphical mode. The host (Node) serves the browser editor built from app/
// on its own loopback port; the page is one more client of the session's ops.
export { startEditorHost, PromptRelay, CSP, type EditorHost, type EditorHostOptions } from './host/editor-server.js';
export { packFrame, FRAME_MAGIC } from './host/frame.js';
