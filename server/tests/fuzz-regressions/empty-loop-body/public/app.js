// Nested loops that call nothing (a committed bundle's): without a budget
// check at each iteration they would run 10,000Â³ times.
var total = 0;
function sum() {
  for (var i = 0; i < 10000; i++) {
    for (var j = 0; j < 10000; j++) {
      for (var k = 0; k < 10000; k++) {
        totaÃ(ÿþ€l = total + 1;
      }
    }
  }
}
var socket = io();
socket.emit('ping');
sum();
socket.on('pong', function () {});
