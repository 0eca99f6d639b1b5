package io.brook.protocol.network;

import io.netty.channel.IoHandlerFactory;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.ServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/** The Netty transport: native epoll where it loads (Linux), Java NIO elsewhere. */
public enum Transport {
  /** Native epoll; file regions go out with {@code sendfile(2)}. */
  EPOLL {
    @Override
    public boolean isAvailable() {
      return Epoll.isAvailable();
    }

    @Override
    public IoHandlerFactory ioHandlerFactory() {
      return EpollIoHandler.newFactory();
    }

    @Override
    Class<? extends ServerSocketChannel> serverChannelClass() {
      return EpollServerSocketChannel.class;
    }

    @Override
    public Class<? extends SocketChannel> socketChannelClass() {
      return EpollSocketChannel.class;
    }
  },

  /** Java NIO; file regions go out with {@code FileChannel.transferTo}. */
  NIO {
    @Override
    public boolean isAvailable() {
      return true;
    }

    @Override
    public IoHandlerFactory ioHandlerFactory() {
      return NioIoHandler.newFactory();
    }

    @Override
    Class<? extends ServerSocketChannel> serverChannelClass() {
      return NioServerSocketChannel.class;
    }

    @Override
    public Class<? extends SocketChannel> socketChannelClass() {
      return NioSocketChannel.class;
    }
  };

  /** Epoll if available, NIO otherwise. */
  public static Transport detect() {
    return EPOLL.isAvailable() ? EPOLL : NIO;
  }

  public abstract boolean isAvailable();

  /** The event loops' I/O handler, for servers and for the inter-node client's loops. */
  public abstract IoHandlerFactory ioHandlerFactory();

  abstract Class<? extends ServerSocketChannel> serverChannelClass();

  /** The client-side channel class (outgoing connections). */
  public abstract Class<? extends SocketChannel> socketChannelClass();
}
