! fcalls_f: the same MPI calls as fcalls.c, through the Fortran bindings
! (mpif.h). See fcalls.c.
program fcalls_f
    implicit none
    include 'mpif.h'
    integer :: ierr, rank, nprocs, right, left, it, i, idx, half, vec, fh
    integer :: req(2), st(MPI_STATUS_SIZE, 2), st1(MPI_STATUS_SIZE)
    double precision :: sbuf(16), rbuf(16), total, mine
    integer(kind=MPI_OFFSET_KIND) :: off, sz, zero
    integer(kind=MPI_ADDRESS_KIND) :: wsize, disp
    integer :: win

    call MPI_Init(ierr)
    call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
    call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
    right = mod(rank + 1, nprocs)
    left = mod(rank + nprocs - 1, nprocs)
    do i = 1, 16
        sbuf(i) = rank * 100 + i - 1
    end do
    do it = 1, 3
        call MPI_Irecv(rbuf, 16, MPI_DOUBLE_PRECISION, left, 7, MPI_COMM_WORLD, req(1), ierr)
        call MPI_Isend(sbuf, 16, MPI_DOUBLE_PRECISION, right, 7, MPI_COMM_WORLD, req(2), ierr)
        call MPI_Waitall(2, req, st, ierr)
    end do
    call MPI_Isend(sbuf, 8, MPI_DOUBLE_PRECISION, right, 8, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Wait(req(2), MPI_STATUS_IGNORE, ierr)
    req(1) = MPI_REQUEST_NULL
    call MPI_Irecv(rbuf, 8, MPI_DOUBLE_PRECISION, left, 8, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Waitany(2, req, idx, st1, ierr)
    call MPI_Waitany(2, req, idx, MPI_STATUS_IGNORE, ierr)
    mine = rank
    call MPI_Allreduce(mine, total, 1, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
    call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
    call MPI_Barrier(half, ierr)
    call MPI_Comm_free(half, ierr)
    call MPI_Type_vector(4, 2, 4, MPI_DOUBLE_PRECISION, vec, ierr)
    call MPI_Type_commit(vec, ierr)
    call MPI_Sendrecv(sbuf, 1, vec, right, 9, rbuf, 1, vec, left, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    call MPI_Type_free(vec, ierr)
    call MPI_File_open(MPI_COMM_WORLD, 'fcalls.dat', MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
    zero = 0
    call MPI_File_set_view(fh, zero, MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, 'native', MPI_INFO_NULL, ierr)
    do i = 0, 3
        off = (rank * 4 + i) * 16
        call MPI_File_write_at(fh, off, sbuf, 16, MPI_DOUBLE_PRECISION, MPI_STATUS_IGNORE, ierr)
    end do
    call MPI_File_sync(fh, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    call MPI_File_get_size(fh, sz, ierr)
    off = rank * 64
    call MPI_File_read_at_all(fh, off, rbuf, 16, MPI_DOUBLE_PRECISION, st1, ierr)
    call MPI_File_close(fh, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    wsize = 16 * 8
    call MPI_Win_create(sbuf, wsize, 8, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
    do it = 1, 2
        call MPI_Win_fence(0, win, ierr)
        disp = 8
        call MPI_Put(rbuf, 4, MPI_DOUBLE_PRECISION, right, disp, 4, MPI_DOUBLE_PRECISION, win, ierr)
        disp = 0
        call MPI_Get(rbuf(5), 4, MPI_DOUBLE_PRECISION, left, disp, 4, MPI_DOUBLE_PRECISION, win, ierr)
        call MPI_Win_fence(0, win, ierr)
    end do
    call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win, ierr)
    disp = 15
    call MPI_Accumulate(mine, 1, MPI_DOUBLE_PRECISION, 0, disp, 1, MPI_DOUBLE_PRECISION, MPI_SUM, win, ierr)
    call MPI_Win_unlock(0, win, ierr)
    call MPI_Win_free(win, ierr)
    call MPI_Finalize(ierr)
end program fcalls_f
