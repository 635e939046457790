import { exactFolders } from './exact-folders.js';

// The folder's promise, night after night, window by window (a conditional request per window).
exactFolders('windows');
