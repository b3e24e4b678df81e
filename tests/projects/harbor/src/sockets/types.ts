// Typed event maps shared by the TypeScript socket modules.

export interface ChatMessage {
  id: string;
  room: string;
  from: string;
  text: string;
  sentAt: string;
}

export interface ChatAck {
  ok: boolean;
  id?: string;
  error?: string;
}

export interface ServerToClientEvents {
  'chat:message': (message: ChatMessage) => void;
  'chat:system': (notice: { room: string; text: string }) => void;
}

export interface ClientToServerEvents {
  'chat:join': (room: string) => void;
  'chat:leave': (room: string) => void;
  'chat:message': (payload: { room: string; text: string }, ack: (res: ChatAck) => void) => void;
}

export interface InterServerEvents {}

export interface SocketData {
  userId: string;
}
