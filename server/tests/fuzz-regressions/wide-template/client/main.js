// The client program: nothing imports it; it imports the module that makes
// the socket.
import { connect } from './socket.js';

connect();
