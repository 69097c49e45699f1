/** What Kilo CLI cannot keep of a session converted into it: what OpenCode cannot, its records being OpenCode's. */
import { describeLossesAs } from '../opencode/losses.js';

export const describeKiloLosses = describeLossesAs('Kilo CLI');
