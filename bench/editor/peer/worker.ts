// dxf-viewer parses in a web worker, as its documentation recommends.
import { DxfViewer } from 'dxf-viewer';

DxfViewer.SetupWorker();
