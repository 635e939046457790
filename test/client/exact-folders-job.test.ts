import { exactFolders } from './exact-folders.js';

// The folder's promise, night after night, through export jobs (their files from Azurite, the workers run by the trigger host).
exactFolders('job');
